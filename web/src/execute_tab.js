// Placeholder: replaced by the module that implements this part.
import {el} from './dom.js';

export function mountExecuteTab(panel, app) {
  panel.append(el('p', {}, 'execute_tab is not built yet.'));
}
